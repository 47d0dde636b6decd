"""The user's commands: ``tablesvc`` and its subcommands, ``make demo``, and what they print."""
