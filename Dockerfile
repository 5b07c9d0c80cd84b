# syntax=docker/dockerfile:1
# One image for everything of miRAGe's own in a cluster: the Dagster webserver, daemon and code
# location, the indexing run pods (dagster-k8s) and the query service (`mirage serve`).
#   docker build -t registry.your-domain.ru/mirage:0.1.0 .

ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

# ---- build: a virtualenv with miRAGe and its pinned dependencies ------------------------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONDONTWRITEBYTECODE=1
# A compiler only here, in case a dependency ships no wheel for this platform; and the
# English-Russian dictionary search translates questions with (mirage_query/translation.py).
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev mueller7-dict \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /src
COPY constraints.txt pyproject.toml README.md LICENSE dagster.yaml workspace.yaml ./
COPY mirage_pipeline ./mirage_pipeline
COPY mirage_query ./mirage_query
RUN pip install -c constraints.txt ".[k8s]" \
    && pip check

# ---- runtime: the virtualenv, a non-root user, no compiler -----------------------------------
FROM ${PYTHON_IMAGE} AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    MIRAGE_HOME=/tmp/mirage \
    DAGSTER_HOME=/opt/dagster/dagster_home
RUN groupadd --system --gid 10001 mirage \
    && useradd --system --uid 10001 --gid 10001 --home-dir /tmp/mirage --shell /usr/sbin/nologin mirage \
    && mkdir -p /opt/dagster/dagster_home /data/documents \
    && chown 10001:10001 /opt/dagster/dagster_home /data/documents
COPY --from=build /opt/venv /opt/venv
COPY --from=build /usr/share/dictd/mueller7.dict.dz /usr/share/dictd/mueller7.dict.dz
WORKDIR /opt/dagster/dagster_home
USER 10001:10001
EXPOSE 8080 3000 4000
CMD ["mirage", "serve", "--host", "0.0.0.0", "--port", "8080"]
