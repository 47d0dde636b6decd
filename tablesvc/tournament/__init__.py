"""The tournament controller: one clock, structure and seating for every table of a venue."""
