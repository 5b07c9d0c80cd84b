"""Launching `index_document` runs through Dagster's GraphQL API (the query service never imports
Dagster: Dagster stays the only writer of the index)."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

JOB_NAME = "index_document"
PARTITIONS_NAME = "documents"

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


class DagsterRuns:
    """A small GraphQL client: find the repository holding the job, then launch partitions."""

    def __init__(self, url: str, *, timeout: float = 10.0) -> None:
        self.endpoint = url.rstrip("/") + "/graphql"
        self.timeout = timeout
        self._repository: Repository | None = None

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
        body = response.json()
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

    async def launch(self, partition_keys: list[str]) -> list[tuple[str, str]]:
        """Launch one run per partition key; returns (key, run id) pairs."""
        launched = []
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            repo = await self._find_repository(client)
            selector = {"repositoryLocationName": repo.location, "repositoryName": repo.name}
            for key in partition_keys:
                # a file uploaded moments ago may not be a partition yet (the sensor adds it)
                await self._call(
                    client, _ADD_PARTITION, {"repo": selector, "name": PARTITIONS_NAME, "key": key}
                )
                params = {
                    "selector": {**selector, "jobName": JOB_NAME},
                    "runConfigData": {},
                    "executionMetadata": {
                        "tags": [
                            {"key": "dagster/partition", "value": key},
                            {"key": "mirage/project", "value": key.split("/", 1)[0]},
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
                launched.append((key, result["run"]["runId"]))
        return launched
