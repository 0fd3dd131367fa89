from django.contrib import admin
from django.urls import include, path, re_path

from api.views import ops
from api.views.root import ApiRootWithoutSlashApi

urlpatterns = [
    path("admin/", admin.site.urls),
    re_path(r"^api/v1$", ApiRootWithoutSlashApi.as_view()),  # the API root without its slash: no redirect
    path("api/v1/", include("api.urls")),
    # operations (issue 16): probes and metrics, outside the API and its authentication
    path("livez", ops.livez, name="livez"),
    path("readyz", ops.readyz, name="readyz"),
    path("metrics", ops.metrics, name="metrics"),
    path("", include("web.urls")),  # the web client (web/): `/`, `/matches/{id}`, …
]

handler400 = "api.exceptions.bad_request_view"
handler404 = "api.exceptions.not_found_view"
handler500 = "api.exceptions.server_error_view"
