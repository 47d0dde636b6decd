"""The pure game core: no I/O, no clock, no MQTT. A deterministic function of its inputs."""
