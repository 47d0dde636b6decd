"""Virtual table devices speaking TSP/1 over ptys or TCP. Never imports the tracker core."""
