"""The optional Prometheus endpoint (``[metrics] port``; off while it is 0).

A venue runs dozens of edge boxes nobody looks at; Prometheus scraping them is how a
technician learns that a reader drops frames or a table stopped publishing before the floor
does. The figures are read from the service when Prometheus asks (a collector), so the event
path pays nothing for them: frames and errors per device, events published and refused,
outbox depth, messages in flight, alerts by severity, hands, and how long the last recovery
from the journal took.

The service imports this module only when the endpoint is on: prometheus-client is the
``metrics`` extra.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol
from wsgiref.simple_server import WSGIServer

import structlog
from prometheus_client import start_http_server
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector, CollectorRegistry

from tablesvc.core.table import TableCore
from tablesvc.pipeline.durations import Durations
from tablesvc.pipeline.publisher import Publisher

log = structlog.get_logger("tablesvc.pipeline.metrics")

BAD_CAUSES = ("bad_crc", "malformed", "too_long", "garbage", "unknown_type")


class Counts(Protocol):
    @property
    def inputs(self) -> int: ...
    @property
    def events(self) -> int: ...
    @property
    def alerts(self) -> dict[str, int]: ...
    @property
    def recovery_s(self) -> float: ...


class Checkpoints(Protocol):
    """What the endpoint reads of the checkpoint writer (tablesvc.pipeline.checkpoint.Writer)."""

    @property
    def written(self) -> int: ...
    @property
    def written_durable(self) -> int: ...
    @property
    def failed(self) -> int: ...


class Service(Protocol):
    """What the endpoint reads of the service (tablesvc.pipeline.service.Service)."""

    @property
    def core(self) -> TableCore: ...
    @property
    def publisher(self) -> Publisher | None: ...
    @property
    def stats(self) -> Counts: ...
    @property
    def work(self) -> Durations: ...
    def outbox_depth(self) -> int: ...
    def journal_syncs(self) -> Durations | None: ...
    @property
    def checkpoints(self) -> Checkpoints: ...


class ServiceCollector(Collector):
    """Yields the service's figures at every scrape."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def describe(self) -> list[Metric]:
        return []  # nothing collected at registration: the service may not be started yet

    def collect(self) -> Iterator[Metric]:
        svc = self.service
        frames = CounterMetricFamily("tablesvc_frames", "Frames received from each device, "
                                     "by result (ok, bad, lost)", labels=["device", "result"])
        bad = CounterMetricFamily("tablesvc_frames_bad", "Frames dropped, by device and cause",
                                  labels=["device", "cause"])
        up = GaugeMetricFamily("tablesvc_device_online", "1 while the device sends frames",
                               labels=["device"])
        for name, link in list(svc.core.links.items()):
            c = link.counters
            frames.add_metric([name, "ok"], c.ok)
            frames.add_metric([name, "bad"], c.bad)
            frames.add_metric([name, "lost"], c.lost)
            for cause in BAD_CAUSES:
                bad.add_metric([name, cause], getattr(c, cause))
            up.add_metric([name], 1 if link.state == "online" else 0)
        yield frames
        yield bad
        yield up
        pub = svc.publisher
        tracking = pub.tracking() if pub is not None else {}
        yield CounterMetricFamily("tablesvc_events_published", "Messages handed to the broker",
                                  value=pub.published if pub else 0)
        yield CounterMetricFamily("tablesvc_publish_refused", "Messages the broker refused",
                                  value=pub.refused if pub else 0)
        yield GaugeMetricFamily("tablesvc_inflight", "Messages sent and not yet acknowledged",
                                value=tracking.get("inflight", 0))
        yield GaugeMetricFamily("tablesvc_broker_connected", "1 while connected to the broker",
                                value=1 if pub is not None and pub.connected else 0)
        yield GaugeMetricFamily("tablesvc_outbox_depth", "Events the broker has not "
                                "acknowledged yet", value=svc.outbox_depth())
        alerts = CounterMetricFamily("tablesvc_alerts", "Alerts raised, by severity",
                                     labels=["severity"])
        for severity in ("info", "warning", "critical"):
            alerts.add_metric([severity], svc.stats.alerts.get(severity, 0))
        yield alerts
        yield CounterMetricFamily("tablesvc_hands", "Hands started at this table",
                                  value=svc.core.hand_no)
        yield CounterMetricFamily("tablesvc_inputs", "Inputs journalled and processed",
                                  value=svc.stats.inputs)
        yield CounterMetricFamily("tablesvc_events", "Events the core produced",
                                  value=svc.stats.events)
        yield GaugeMetricFamily("tablesvc_recovery_seconds", "How long the last start took "
                                "to rebuild the state from the journal",
                                value=svc.stats.recovery_s)
        ckpt = CounterMetricFamily("tablesvc_checkpoints", "Checkpoints of the table's state "
                                   "written since the start, synced to the disk or not, and "
                                   "those that could not be written (a restart then replays "
                                   "more journal)", labels=["result"])
        writer = svc.checkpoints
        ckpt.add_metric(["synced"], writer.written_durable)
        ckpt.add_metric(["unsynced"], writer.written - writer.written_durable)
        ckpt.add_metric(["failed"], writer.failed)
        yield ckpt
        syncs = svc.journal_syncs()
        if syncs is not None:
            yield _histogram(
                "tablesvc_journal_sync_seconds", "How long each batch's journal sync took: every "
                "event waits for one, so a slow disk shows here first", syncs)
        yield _histogram(
            "tablesvc_pipeline_work_seconds", "Per batch with events: from its journal sync "
            "returning to its events handed to the publisher (the core, the events' JSON)",
            svc.work)
        if pub is not None:
            yield _histogram(
                "tablesvc_publish_handover_seconds", "From events handed to the publisher to "
                "their write to the broker's socket, while connected", pub.handover)


def _histogram(name: str, documentation: str, d: Durations) -> HistogramMetricFamily:
    return HistogramMetricFamily(name, documentation,
                                 buckets=[(_le(b), n) for b, n in d.cumulative()],
                                 sum_value=d.total)


def _le(bound: float) -> str:
    return "+Inf" if bound == float("inf") else repr(bound)


def start_endpoint(service: Service, address: str, port: int) -> WSGIServer:
    """Serve /metrics on ``address:port`` from a daemon thread; returns the server."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ServiceCollector(service))
    server, _ = start_http_server(port, addr=address, registry=registry)
    log.info("metrics endpoint listening", address=address, port=port)
    return server
