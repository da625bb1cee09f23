// The Python files of one Horizon instance (test/support/horizon.ts writes them into its folder):
// a private local_settings.py, the settings module that makes Debian's Horizon read it instead of
// /etc/openstack-dashboard/local_settings.py, the WSGI entry and a manage.py for the static files.

export interface HorizonSettings {
  /** Keystone v3, e.g. http://127.0.0.1:5000/v3. */
  keystoneUrl: string;
  secretKey: string;
  /** Where collectstatic and compress put the static files (and uwsgi serves /static/ from). */
  staticRoot: string;
}

const py = (s: string) => JSON.stringify(s); // a JSON string is a valid Python str literal for these values

/** The private local_settings.py. Sessions are Horizon's signed cookies: no memcached, no shared cache. */
export function localSettings(s: HorizonSettings): string {
  const loggers = ['horizon', 'openstack_dashboard', 'openstack_auth', 'magnum_ui', 'django.request', 'keystoneauth', 'keystoneclient', 'novaclient', 'glanceclient', 'neutronclient', 'cinderclient', 'magnumclient', 'heatclient'];
  return `# Written by test/support/horizon.ts for one test's Horizon (not Debian's /etc/openstack-dashboard/local_settings.py).
DEBUG = False
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
SECRET_KEY = ${py(s.secretKey)}
OPENSTACK_HOST = '127.0.0.1'
OPENSTACK_KEYSTONE_URL = ${py(s.keystoneUrl)}
OPENSTACK_KEYSTONE_DEFAULT_ROLE = 'member'
OPENSTACK_KEYSTONE_MULTIDOMAIN_SUPPORT = False
OPENSTACK_KEYSTONE_DEFAULT_DOMAIN = 'Default'
OPENSTACK_ENDPOINT_TYPE = 'publicURL'
SESSION_ENGINE = 'django.contrib.sessions.backends.signed_cookies'
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
CACHES = {'default': {'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}
STATIC_ROOT = ${py(s.staticRoot)}
COMPRESS_OFFLINE = True
TIME_ZONE = 'UTC'
LOGGING = {
    'version': 1,
    'disable_existing_loggers': False,
    'formatters': {'plain': {'format': '%(asctime)s %(levelname)s %(name)s %(message)s'}},
    'handlers': {'stderr': {'class': 'logging.StreamHandler', 'formatter': 'plain', 'level': 'INFO'}},
    'loggers': {name: {'handlers': ['stderr'], 'level': 'INFO', 'propagate': False} for name in ${JSON.stringify(loggers)}},
}
`;
}

/**
 * The settings module: loads the private local_settings.py as the module Horizon's settings import
 * (`local.local_settings`), then Horizon's settings (which also run Debian's local_settings.d snippets,
 * after local_settings), then the private values again so that they win over the snippets (STATIC_ROOT).
 */
export const SETTINGS_MODULE = 'magnum_ts_horizon_settings';
export const settingsModule = `# Written by test/support/horizon.ts.
import importlib.util
import os
import sys

_spec = importlib.util.spec_from_file_location('local.local_settings', os.path.join(os.path.dirname(__file__), 'local_settings.py'))
_private = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_private)
sys.modules['local.local_settings'] = _private
sys.modules['openstack_dashboard.local.local_settings'] = _private

from openstack_dashboard.settings import *  # noqa: E402,F401,F403
from local.local_settings import *  # noqa: E402,F401,F403
`;

const entry = `import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ['DJANGO_SETTINGS_MODULE'] = '${SETTINGS_MODULE}'
`;

export const wsgiFile = `# Written by test/support/horizon.ts.
${entry}
from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()
`;

export const manageFile = `# Written by test/support/horizon.ts.
${entry}
from django.core.management import execute_from_command_line  # noqa: E402

execute_from_command_line(sys.argv)
`;
