import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
application = get_wsgi_application()

# Import every view now (the URLconf pulls in pandas, matplotlib, reportlab:
# ~2 s) rather than in the first request each worker serves; with gunicorn
# --preload the workers inherit the imports from the master.
import_module(settings.ROOT_URLCONF)
