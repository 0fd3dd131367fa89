from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("api.urls")),
    path("", include("web.urls")),  # the web client (web/): `/`, `/matches/{id}`, …
]

handler404 = "api.exceptions.not_found_view"
handler500 = "api.exceptions.server_error_view"
