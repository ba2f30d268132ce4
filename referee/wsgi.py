"""The WSGI app for a gunicorn you run yourself (`gunicorn 'referee.wsgi:app'`);
configured from REFEREE_STORE and REFEREE_QUEUE."""

from referee import logs
from referee.api import create_app

logs.configure()

app = create_app()
