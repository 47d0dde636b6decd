"""TSP/1 device drivers: the wire codec and serial transports. No game knowledge."""
