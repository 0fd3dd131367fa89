#!/bin/sh
# web: migrate, collect static files, serve with gunicorn. worker / beat: Celery.
set -e
case "$1" in
  web)
    python manage.py migrate --noinput
    python manage.py collectstatic --noinput --verbosity 0
    exec gunicorn config.wsgi:application --bind 0.0.0.0:8000 --workers "${WEB_WORKERS:-3}" --access-logfile -
    ;;
  worker) exec celery -A config worker --loglevel=INFO ;;
  beat) exec celery -A config beat --loglevel=INFO --schedule /app/var/celerybeat-schedule ;;
  *) exec "$@" ;;
esac
