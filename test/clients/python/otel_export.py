"""Exports a nested GenAI trace to Heddle with the official OpenTelemetry Python SDK and OTLP/HTTP
(protobuf) exporter, then prints the ids as one JSON line. Usage: otel_export.py URL KEY PROJECT [gzip]"""
import json
import sys

from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import SpanKind, Status, StatusCode, set_span_in_context

url, key, project = sys.argv[1], sys.argv[2], sys.argv[3]
compression = Compression.Gzip if len(sys.argv) > 4 and sys.argv[4] == "gzip" else Compression.NoCompression
entity, name = project.split("/")

exporter = OTLPSpanExporter(endpoint=f"{url}/otel/v1/traces", headers={"wandb-api-key": key}, compression=compression)
provider = TracerProvider(resource=Resource.create({"service.name": "py-e2e", "wandb.entity": entity, "wandb.project": name}))
provider.add_span_processor(SimpleSpanProcessor(exporter))
tracer = provider.get_tracer("heddle-py-e2e", "1.0.0")

root = tracer.start_span("invoke_agent py planner")
root.set_attribute("gen_ai.operation.name", "invoke_agent")
root.set_attribute("wandb.thread_id", "py-thread")
root.set_attribute("wandb.is_turn", True)
root.set_attribute("input", json.dumps({"goal": "trip", "big": 9223372036854775807}))
root.set_attribute("output", "done")

child = tracer.start_span("chat gpt-4o-mini", context=set_span_in_context(root), kind=SpanKind.CLIENT)
child.set_attribute("gen_ai.system", "openai")
child.set_attribute("gen_ai.request.model", "gpt-4o-mini")
child.set_attribute("gen_ai.usage.input_tokens", 11)
child.set_attribute("gen_ai.usage.output_tokens", 7)
child.set_attribute("llm.token_count.prompt", 11)
child.set_attribute("gen_ai.request.stop_sequences", ["a", "b"])
child.set_attribute("wandb.attributes", json.dumps({"team": "py"}))
child.add_event("exception", {"exception.type": "ValueError", "exception.message": "bad"})
child.set_status(Status(StatusCode.ERROR, "ValueError: bad"))
child.end()
root.set_status(Status(StatusCode.OK))
root.end()

provider.force_flush()
provider.shutdown()
print(json.dumps({
    "trace_id": format(root.get_span_context().trace_id, "032x"),
    "root_id": format(root.get_span_context().span_id, "016x"),
    "child_id": format(child.get_span_context().span_id, "016x"),
}))
