#!/bin/sh
# The one image's commands (docker/compose.yaml; .ci/prodlayout.py runs the same ones without containers):
#   migrate          apply migrations (a one-shot service, before the web processes start)
#   web              collect static files, then the front (`python -m front`, front/server.py) on
#                    $WEB_HOST:$WEB_PORT: WEB_WORKERS uvicorn processes, each serving the live streams
#                    on its event loop and every other request on WEB_THREADS threads (front/app.py)
#   celery …         a Celery worker (-Q <queue>) or beat, as given
#   anything else    run as given (`django-admin verify_matches`, `django-admin abort_match …`: the image
#                    holds the installed wheel, not the source, so django-admin stands for manage.py)
# Each process group empties its PROMETHEUS_MULTIPROC_DIR before it starts (multiprocess metrics).
set -e
prepare_metrics() {
  if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
    find "$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -name '*.db' -type f -delete
  fi
}
# Any other command (migrate, django-admin …) may run beside a process group: it keeps the files.
[ -z "${PROMETHEUS_MULTIPROC_DIR:-}" ] || mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
case "$1" in
  migrate)
    exec django-admin migrate --noinput
    ;;
  web)
    prepare_metrics
    django-admin collectstatic --noinput --verbosity 0
    exec python -m front --host "${WEB_HOST:-0.0.0.0}" --port "${WEB_PORT:-8000}"
    ;;
  celery)
    prepare_metrics
    exec "$@"
    ;;
  *) exec "$@" ;;
esac
