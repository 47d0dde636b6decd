"""The floor console: every table of a venue on one screen (``tablesvc floor``).

It is the venue-side consumer of the public feed (DESIGN §9): it reads, stores and shows what
the tables publish, and it sends exactly one command, ``cmd/ack_alert``. It never subscribes
to ``secure/#`` and drops any hidden card a public message might carry by mistake.
"""
