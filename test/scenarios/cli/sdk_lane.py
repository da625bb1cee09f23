"""What both openstacksdk check scripts share (openstacksdk-checks.py, openstacksdk-current-checks.py).

The cloud's settings read as JSON from stdin; a connection per built-in user; checks registered in order and
run by run(), each printed as one JSON line {"check", "ok", "error", "detail", "started", "ended"} (times in
ms since the epoch, to match the calls the test's tap recorded); `state` carries what a check made to the
next, and need() fails a check whose earlier one did not make it.
"""
import json
import sys
import time
import traceback

import openstack

cfg = json.load(sys.stdin)
state = {}
CHECKS = []


def connect(user):
    u = cfg['users'][user]
    return openstack.connect(
        auth_url=cfg['auth_url'], username=user, password=u['password'],
        project_name=u['project'], user_domain_name='Default',
        project_domain_name='Default', region_name='RegionOne',
        identity_api_version='3', load_yaml_config=False,
        load_envvars=False)


def check(name):
    def register(fn):
        CHECKS.append((name, fn))
        return fn
    return register


def need(key):
    if key not in state:
        raise RuntimeError('needs %s (an earlier check failed)' % key)
    return state[key]


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def run():
    for name, fn in CHECKS:
        started = int(time.time() * 1000)
        try:
            detail, ok, error = fn(), True, None
        except Exception as e:  # noqa: B902 - every failure is a result
            detail, ok = None, False
            error = '%s: %s\n%s' % (type(e).__name__, e,
                                    traceback.format_exc(limit=4))
        print(json.dumps({'check': name, 'ok': ok, 'error': error,
                          'detail': detail, 'started': started,
                          'ended': int(time.time() * 1000)}), flush=True)
