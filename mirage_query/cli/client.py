"""The CLI's HTTP client: configuration, the API key rule, and errors mapped to exit codes.

Exit codes: 0 ok, 1 failure, 2 usage, 3 not found, 4 cannot reach the service, 5 auth failed.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import click
import httpx
import yaml

from mirage_pipeline.names import CONFIG_FILE
from mirage_query.cli.settings import load_settings
from mirage_query.settings import ServiceSettings

OK, FAILURE, USAGE, NOT_FOUND, UNREACHABLE, AUTH_FAILED = 0, 1, 2, 3, 4, 5


class CliError(click.ClickException):
    """An error printed as `Error: message` that exits with its own code."""

    def __init__(self, message: str, exit_code: int = FAILURE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def is_local(url: str) -> bool:
    """Whether `url` points at this machine (only then may the key file be sent)."""
    host = (urlparse(url).hostname or "").lower()
    if host in ("localhost", "localhost.localdomain") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_service(settings: ServiceSettings) -> tuple[str, Path]:
    """The URL and home of the local stack a call means.

    The home is MIRAGE_HOME when set, else `./.mirage` when it holds a key (the repository's
    own stack); its recorded stack gives the URL unless MIRAGE_API_URL is set. Without either,
    from any other folder, the stack `mirage up` recorded on MIRAGE_API_URL's port, else the
    only recorded stack that answers.
    """
    from mirage_query.locator import find_stack

    url_given = settings.api_url_given
    own_home = settings.home_given or settings.api_key_file.exists()
    home = settings.home if own_home else None
    stack = find_stack(settings.stacks_dir, settings.api_url, url_given=url_given, home=home)
    url = stack.api_url if stack and not url_given else settings.api_url
    return url, home or (stack.home if stack else settings.home)


def config_files(start: Path) -> Iterator[Path]:
    """Every `.mirage.yaml` in `start` and its parents, nearest first: a project's `project_id`
    and its documents folder's indexing policy are both looked up this way."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            yield candidate


def read_config(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise CliError(f"cannot read {path}: {exc}", USAGE) from None
    if not isinstance(data, dict):
        raise CliError(f"{path} is not a mapping (expected `project_id: NAME`)", USAGE)
    return data


def resolve_project(project: str | None, start: Path | None = None) -> str:
    """`--project` if given, else `project_id` from the nearest `.mirage.yaml` that has one.

    A `.mirage.yaml` without `project_id` (say, a documents folder's indexing policy) is passed
    over on the way up.
    """
    if project:
        return project
    here = (start or Path.cwd()).resolve()
    passed: list[Path] = []
    for candidate in config_files(here):
        value = read_config(candidate).get("project_id")
        if value and isinstance(value, str | int):
            return str(value)
        passed.append(candidate)
    if passed:
        raise CliError(
            f"{passed[0]} has no `project_id`: add `project_id: NAME`, or pass --project NAME",
            USAGE,
        )
    raise CliError(
        f"no project given and no {CONFIG_FILE} in {here} or its parents: "
        "pass --project NAME, or run `mirage init NAME` here",
        USAGE,
    )


def project_option(func):
    """`--project/-p`, defaulting to `project_id` of the nearest `.mirage.yaml`."""
    return click.option(
        "--project",
        "-p",
        default=None,
        metavar="NAME",
        help=f"Project (default: project_id from the nearest {CONFIG_FILE}).",
    )(func)


def json_option(func):
    return click.option("--json", "as_json", is_flag=True, help="Print the API's JSON unchanged.")(
        func
    )


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


class Api:
    """One miRAGe service: `MIRAGE_API_URL`, the key from `MIRAGE_API_KEY` or the key file."""

    def __init__(
        self,
        url: str,
        key: str | None,
        *,
        key_from_file: bool = False,
        key_file: Path | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.key = key
        self.key_from_file = key_from_file
        self.key_file = key_file  # where a local key was looked for
        headers = {"X-API-Key": key} if key else {}
        self.http = httpx.Client(
            base_url=self.url, headers=headers, timeout=httpx.Timeout(120, connect=5)
        )

    @classmethod
    def from_env(cls) -> Api:
        """The service and key this call means; see `local_service` for a stack on this machine."""
        settings = load_settings()
        if not is_local(settings.api_url):
            return cls(settings.api_url, settings.api_keys[0] if settings.api_keys else None)
        url, home = local_service(settings)
        if settings.api_keys:
            return cls(url, settings.api_keys[0])
        key_file = home / "api-key"
        try:
            key = key_file.read_text(encoding="utf-8").strip()
        except OSError:
            key = ""
        return cls(url, key or None, key_from_file=bool(key), key_file=key_file)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """The response's JSON; any failure raises CliError with the matching exit code."""
        try:
            response = self.http.request(method, path, **kwargs)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise CliError(
                f"cannot reach miRAGe at {self.url} — is `mirage up` running? ({exc})",
                UNREACHABLE,
            ) from None
        except httpx.TimeoutException:
            raise CliError(f"miRAGe at {self.url} did not answer in time", FAILURE) from None
        except httpx.TransportError as exc:
            raise CliError(
                f"cannot reach miRAGe at {self.url} — is `mirage up` running? ({exc})",
                UNREACHABLE,
            ) from None
        if response.status_code < 400:
            return response.json() if response.content else None
        raise self._error(response)

    def _error(self, response: httpx.Response) -> CliError:
        try:
            detail = response.json().get("detail") or response.text
        except (ValueError, AttributeError):
            detail = response.text.strip() or response.reason_phrase
        code = response.status_code
        if code in (401, 403):
            if self.key is None:
                hint = "set MIRAGE_API_KEY"
                if not is_local(self.url):
                    hint += " (the local key file is never sent to a remote host)"
                elif self.key_file:
                    hint += f" or MIRAGE_HOME (no key in {self.key_file})"
                return CliError(f"miRAGe at {self.url} needs an API key: {hint}", AUTH_FAILED)
            source = "$MIRAGE_HOME/api-key" if self.key_from_file else "MIRAGE_API_KEY"
            return CliError(
                f"miRAGe at {self.url} refused the API key from {source}: {detail}", AUTH_FAILED
            )
        if code == 404:
            return CliError(detail, NOT_FOUND)
        if code in (400, 422):
            return CliError(detail, USAGE)
        if code == 503:
            return CliError(f"{detail} (HTTP 503: retry shortly)", FAILURE)
        return CliError(f"{detail} (HTTP {code})", FAILURE)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.request("POST", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Any:
        return self.request("DELETE", path, **kwargs)
