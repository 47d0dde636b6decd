"""The service pipeline: transports -> input journal -> core -> publisher, with the outbox
beside it. Everything here does I/O; the game itself is ``tablesvc.core``."""
