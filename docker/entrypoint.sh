#!/bin/sh
# The one image's commands (docker/compose.yaml; .ci/prodlayout.py runs the same ones without containers):
#   migrate          apply migrations (a one-shot service, before the web processes start)
#   web              collect static files, serve with gunicorn (config/gunicorn.py)
#   stream           the stream server (SSE): uvicorn config.stream:application on $STREAM_BIND_PORT
#   celery …         a Celery worker (-Q <queue>) or beat, as given
#   anything else    run as given (manage.py commands: verify_matches, abort_match…)
# Each process group empties its PROMETHEUS_MULTIPROC_DIR before it starts (multiprocess metrics).
set -e
prepare_metrics() {
  if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
    find "$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -name '*.db' -type f -delete
  fi
}
# Any other command (migrate, manage.py …) may run beside a process group: it keeps the files.
[ -z "${PROMETHEUS_MULTIPROC_DIR:-}" ] || mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
case "$1" in
  migrate)
    exec python manage.py migrate --noinput
    ;;
  web)
    prepare_metrics
    python manage.py collectstatic --noinput --verbosity 0
    exec gunicorn -c config/gunicorn.py config.wsgi:application
    ;;
  stream)
    prepare_metrics
    exec uvicorn config.stream:application --host "${STREAM_BIND_HOST:-0.0.0.0}" --port "${STREAM_BIND_PORT:-8001}" --log-level warning \
      --no-access-log --proxy-headers --forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-*}" --timeout-graceful-shutdown 5
    ;;
  celery)
    prepare_metrics
    exec "$@"
    ;;
  *) exec "$@" ;;
esac
