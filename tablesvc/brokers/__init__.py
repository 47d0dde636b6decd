"""MQTT brokers started on demand: amqtt in the process for the demo, mosquitto for tests and
benchmarks. The service itself never starts a broker."""
