"""What a table is told: its config file (DESIGN §6, ``table``) and its registries (DESIGN §5,
``registry``)."""
