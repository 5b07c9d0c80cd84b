"""The API docs under /schema: Swagger UI from its pip package, served by the service itself.

Litestar's UIs load their scripts from CDNs, so /schema was a blank page without internet.
Here the script, styles and icon come from `swagger-ui-bundle-v2` (Swagger UI 5, which reads
the OpenAPI 3.1 that Litestar writes) under /schema/assets/; the schema itself is at
/schema/openapi.json and /schema/openapi.yaml.
"""

from __future__ import annotations

from litestar import Router
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin, YamlRenderPlugin
from litestar.static_files import create_static_files_router
from swagger_ui_bundle import swagger_ui_path

SCHEMA_PATH = "/schema"
ASSETS = f"{SCHEMA_PATH}/assets"


class BundledSwaggerUI(SwaggerRenderPlugin):
    """Swagger UI at /schema and /schema/swagger, its files served from the installed package."""

    def __init__(self) -> None:
        super().__init__(
            js_url=f"{ASSETS}/swagger-ui-bundle.js",
            css_url=f"{ASSETS}/swagger-ui.css",
            standalone_preset_js_url=f"{ASSETS}/swagger-ui-standalone-preset.js",
            favicon=f"<link rel='icon' type='image/png' href='{ASSETS}/favicon-32x32.png'>",
            path=["/", "/swagger"],
        )

    def receive_router(self, router: Router) -> None:
        super().receive_router(router)
        router.register(
            create_static_files_router(
                path=ASSETS.removeprefix(SCHEMA_PATH),
                directories=[swagger_ui_path],
                name="swagger-ui-assets",
                include_in_schema=False,
            )
        )


def openapi_config(title: str, version: str) -> OpenAPIConfig:
    """The OpenAPI schema and its docs page, with nothing loaded from another site."""
    return OpenAPIConfig(
        title=title,
        version=version,
        path=SCHEMA_PATH,
        render_plugins=[BundledSwaggerUI(), YamlRenderPlugin()],
    )
