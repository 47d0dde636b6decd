"""tablesvc: edge service for RFID poker tables."""

__version__ = "0.1.0"
