"""The broadcast overlay: a web page for an OBS browser source, fed by one table's events.

``server`` serves the page and its WebSocket (aiohttp); ``feed`` subscribes to the table with
the broadcast role's user; ``delay`` holds everything back by the video's delay; ``model``
turns the due messages into the picture the page draws. See docs/BROADCAST.md.
"""
