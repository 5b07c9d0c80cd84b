"""Launching `index_document` runs through Dagster's GraphQL API (the query service never imports
Dagster: Dagster stays the only writer of the index).

Re-indexing is idempotent: a document that already has a run queued or running gets no second
one (its runs are looked up by tag first, and this process launches one batch at a time).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx

from mirage_pipeline.names import INDEX_JOB as JOB_NAME
from mirage_pipeline.names import PARTITION_TAG, PROJECT_TAG
from mirage_pipeline.names import PARTITIONS as PARTITIONS_NAME

# a run in one of these states will index the document: asking again adds nothing
IN_FLIGHT = ["QUEUED", "NOT_STARTED", "STARTING", "STARTED"]

_REPOSITORIES = """
query Repositories {
  repositoriesOrError {
    __typename
    ... on RepositoryConnection { nodes { name location { name } jobs { name } } }
    ... on PythonError { message }
  }
}"""

_ADD_PARTITION = """
mutation AddPartition($repo: RepositorySelector!, $name: String!, $key: String!) {
  addDynamicPartition(repositorySelector: $repo, partitionsDefName: $name, partitionKey: $key) {
    __typename
    ... on PythonError { message }
    ... on UnauthorizedError { message }
  }
}"""

_IN_FLIGHT = """
query InFlight($filter: RunsFilter!) {
  runsOrError(filter: $filter) {
    __typename
    ... on Runs { results { runId tags { key value } } }
    ... on PythonError { message }
    ... on InvalidPipelineRunsFilterError { message }
  }
}"""

_LAUNCH = """
mutation Launch($params: ExecutionParams!) {
  launchRun(executionParams: $params) {
    __typename
    ... on LaunchRunSuccess { run { runId } }
    ... on PythonError { message }
    ... on InvalidSubsetError { message }
    ... on RunConfigValidationInvalid { errors { message } }
    ... on Error { message }
  }
}"""


class DagsterUnavailable(RuntimeError):
    """Dagster's webserver cannot be reached or does not know the job."""


class DagsterRejected(RuntimeError):
    """Dagster answered but refused to launch the run."""


@dataclass(frozen=True)
class Repository:
    location: str
    name: str


@dataclass(frozen=True)
class Run:
    partition: str
    run_id: str
    new: bool  # launched now; False: the run already queued or running for the partition


class DagsterRuns:
    """A small GraphQL client: find the repository holding the job, then launch partitions."""

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self.endpoint = url.rstrip("/") + "/graphql"
        self.timeout = timeout
        self._repository: Repository | None = None
        self._launching = asyncio.Lock()

    async def _call(self, client: httpx.AsyncClient, query: str, variables: dict) -> dict:
        try:
            response = await client.post(
                self.endpoint, json={"query": query, "variables": variables}
            )
        except httpx.HTTPError as exc:
            raise DagsterUnavailable(
                f"Dagster is not reachable at {self.endpoint}: {exc or type(exc).__name__}"
            ) from exc
        if response.status_code != 200:
            raise DagsterUnavailable(
                f"Dagster at {self.endpoint} answered HTTP {response.status_code}"
            )
        try:
            body = response.json()
        except ValueError:
            raise DagsterUnavailable(f"Dagster at {self.endpoint} answered no JSON") from None
        if body.get("errors"):
            raise DagsterRejected("; ".join(e.get("message", "?") for e in body["errors"]))
        return body["data"]

    async def _find_repository(self, client: httpx.AsyncClient) -> Repository:
        if self._repository is None:
            data = (await self._call(client, _REPOSITORIES, {}))["repositoriesOrError"]
            for node in data.get("nodes", []):
                if any(job["name"] == JOB_NAME for job in node["jobs"]):
                    self._repository = Repository(node["location"]["name"], node["name"])
                    break
            else:
                raise DagsterUnavailable(
                    f"no code location in Dagster at {self.endpoint} has the job {JOB_NAME!r}"
                )
        return self._repository

    async def in_flight(self, client: httpx.AsyncClient, keys: list[str]) -> dict[str, str]:
        """Run ids of the runs queued or running for `keys`, by partition key."""
        projects = {key.split("/", 1)[0] for key in keys}
        if len(keys) == 1:
            tag = {"key": PARTITION_TAG, "value": keys[0]}
        elif len(projects) == 1:
            tag = {"key": PROJECT_TAG, "value": projects.pop()}
        else:
            tag = None
        run_filter: dict = {"statuses": IN_FLIGHT, **({"tags": [tag]} if tag else {})}
        data = (await self._call(client, _IN_FLIGHT, {"filter": run_filter}))["runsOrError"]
        if data["__typename"] != "Runs":
            raise DagsterRejected(f"Dagster could not list runs: {data.get('message')}")
        wanted = set(keys)
        found: dict[str, str] = {}
        for run in data["results"]:
            tags = {t["key"]: t["value"] for t in run["tags"]}
            key = tags.get(PARTITION_TAG)
            if key in wanted:
                found.setdefault(key, run["runId"])
        return found

    async def launch(self, partition_keys: list[str]) -> list[Run]:
        """One run per partition key that has none queued or running yet."""
        runs = []
        # look-up then launch is one step: concurrent requests cannot both launch a document
        async with self._launching, httpx.AsyncClient(timeout=self.timeout) as client:
            repo = await self._find_repository(client)
            selector = {"repositoryLocationName": repo.location, "repositoryName": repo.name}
            running = await self.in_flight(client, partition_keys) if partition_keys else {}
            for key in partition_keys:
                if key in running:
                    runs.append(Run(key, running[key], new=False))
                    continue
                # a file uploaded moments ago may not be a partition yet (the sensor adds it)
                await self._call(
                    client, _ADD_PARTITION, {"repo": selector, "name": PARTITIONS_NAME, "key": key}
                )
                params = {
                    "selector": {**selector, "jobName": JOB_NAME},
                    "runConfigData": {},
                    "executionMetadata": {
                        "tags": [
                            {"key": PARTITION_TAG, "value": key},
                            {"key": PROJECT_TAG, "value": key.split("/", 1)[0]},
                            {"key": "mirage/trigger", "value": "api"},
                        ]
                    },
                }
                result = (await self._call(client, _LAUNCH, {"params": params}))["launchRun"]
                if result["__typename"] != "LaunchRunSuccess":
                    message = result.get("message") or "; ".join(
                        e["message"] for e in result.get("errors", [])
                    )
                    raise DagsterRejected(f"Dagster refused to launch {key}: {message}")
                runs.append(Run(key, result["run"]["runId"], new=True))
        return runs
