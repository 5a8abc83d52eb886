"""Watching runs: the trace, observers, analytics and the OpenTelemetry export."""
