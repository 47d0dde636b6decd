"""Rule monitors: each cross-cutting check of the catalogue, found by its rule ID."""
