# Multi-stage build: wheels are built in `build`, the slim runtime image only
# installs them, runs as the unprivileged user `app` and serves with gunicorn;
# static files are collected at build time and served by whitenoise.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
RUN pip install --no-cache-dir --upgrade pip \
 && pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production \
    MEDIA_ROOT=/data/media
RUN useradd --create-home --uid 1000 app \
 && mkdir -p /data/media && chown -R app:app /data
WORKDIR /app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/* && rm -rf /wheels
COPY --chown=app:app . .
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput
USER app
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/', timeout=4)"
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", \
     "--workers", "3", "--access-logfile", "-", "--timeout", "60"]
