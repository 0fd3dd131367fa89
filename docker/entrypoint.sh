#!/bin/sh
# web: migrate, collect static files, serve with gunicorn (config/gunicorn.py: gthread, bounded reads).
# worker [QUEUES]: a Celery worker on QUEUES (default `celery`; `timers` and `bots` have their own). beat: Celery beat.
set -e
case "$1" in
  web)
    python manage.py migrate --noinput
    python manage.py collectstatic --noinput --verbosity 0
    exec gunicorn config.wsgi:application -c config/gunicorn.py --bind 0.0.0.0:8000
    ;;
  worker) exec celery -A config worker -Q "${2:-celery}" -n "${2:-celery}@%h" --loglevel=INFO ;;
  beat) exec celery -A config beat --loglevel=INFO --schedule /app/var/celerybeat-schedule ;;
  *) exec "$@" ;;
esac
