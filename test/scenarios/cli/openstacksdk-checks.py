"""openstacksdk (Debian's python3-openstacksdk) against the service and the simulator.

Run by test/scenarios/cli/openstacksdk.test.ts with /usr/bin/python3: reads the cloud's settings as JSON on stdin
and prints one JSON line per check on stdout: {"check", "ok", "error", "detail", "started", "ended"}
(times in ms since the epoch, to match the calls the test's tap recorded). A check that needs what an
earlier one made fails with a note saying so.
"""
import time

import openstack
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from sdk_lane import check, cfg, connect, expect, need, run, state  # noqa: F401

demo = connect('demo')
admin = connect('admin')


def wait_cluster(name, busy, timeout=150):
    end = time.time() + timeout
    while True:
        c = demo.get_coe_cluster(name)
        expect(c is not None, 'cluster %s is listed' % name)
        if c['status'] != busy:
            return c
        expect(time.time() < end, '%s still %s' % (name, busy))
        time.sleep(0.5)


@check('service proxy: endpoint discovery and a paged list')
def service_proxy():
    proxy = demo.container_infrastructure_management
    kinds = [k for k in ('cluster_templates', 'clusters', 'find_cluster')
             if hasattr(proxy, k)]
    # 0.101 has no resource classes for Magnum: the service is a bare
    # proxy; its discovery of the endpoint and a paged list are what it
    # can do. No microversion: the proxy would name the service
    # 'container-infrastructure-management' in OpenStack-API-Version, a
    # type Magnum refuses (406), as this service does.
    first = proxy.get('/clustertemplates?limit=1').json()
    expect(len(first['clustertemplates']) == 1, 'limit=1 gives one template')
    expect('next' in first, 'a next link after a full page')
    second = proxy.get(first['next']).json()
    names = [t['name'] for t in first['clustertemplates']
             + second['clustertemplates']]
    expect(len(set(names)) == 2, 'two pages, two templates: %s' % names)
    return {'resource_methods': kinds, 'paged': names,
            'sdk': openstack.version.__version__}


@check('cloud layer: list_coe_cluster_templates')
def list_templates():
    names = sorted(t['name'] for t in demo.list_coe_cluster_templates())
    expect(set(cfg['templates']) <= set(names), 'seeded templates in %s'
           % names)
    return names


@check('cloud layer: create_coe_cluster_template')
def create_template():
    t = demo.create_coe_cluster_template(
        'sdk-tpl', image_id='ubuntu-24.04', keypair_id=None,
        coe='kubernetes', external_network_id='public',
        flavor_id='m1.small', master_flavor_id='m1.medium',
        network_driver='calico', master_lb_enabled=True,
        floating_ip_enabled=True, labels={'kube_tag': 'v1.35.1'})
    expect(t['name'] == 'sdk-tpl' and t['coe'] == 'kubernetes', str(t))
    expect(t['labels'] == {'kube_tag': 'v1.35.1'}, 'labels: %s'
           % t['labels'])
    state['template'] = t['id']
    return t['id']


@check('cloud layer: get_coe_cluster_template by name')
def get_template():
    t = demo.get_coe_cluster_template('sdk-tpl')
    expect(t is not None and t['id'] == need('template'), str(t))
    return t['id']


@check('cloud layer: update_coe_cluster_template (replace name)')
def update_template():
    t = demo.update_coe_cluster_template(need('template'), 'replace',
                                         name='sdk-tpl-2')
    expect(t is not None and t['name'] == 'sdk-tpl-2', str(t))
    return t['name']


@check('cloud layer: create_coe_cluster, 1+1, to CREATE_COMPLETE')
def create_cluster():
    c = demo.create_coe_cluster('sdk-cl', need('template'), master_count=1,
                                node_count=1)
    expect(c['id'], 'an id: %s' % c)
    state['cluster'] = c['id']
    done = wait_cluster('sdk-cl', 'CREATE_IN_PROGRESS')
    expect(done['status'] == 'CREATE_COMPLETE', 'status %s: %s' % (
        done['status'], done['properties'].get('status_reason')))
    return {'id': c['id'], 'status': done['status']}


@check('cloud layer: update_coe_cluster scales to 2 workers')
def scale_cluster():
    need('cluster')
    demo.update_coe_cluster('sdk-cl', 'replace', node_count=2)
    done = wait_cluster('sdk-cl', 'UPDATE_IN_PROGRESS')
    expect(done['status'] == 'UPDATE_COMPLETE', 'status %s: %s' % (
        done['status'], done['properties'].get('status_reason')))
    expect(done['node_count'] == 2, 'node_count %s' % done['node_count'])
    return done['node_count']


@check('cloud layer: get and sign_coe_cluster_certificate')
def certificates():
    cluster = need('cluster')
    ca = demo.get_coe_cluster_certificate(cluster)
    ca_cert = x509.load_pem_x509_certificate(ca['pem'].encode())
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, 'system:masters'),
        x509.NameAttribute(NameOID.COMMON_NAME, 'admin')])
    csr = x509.CertificateSigningRequestBuilder().subject_name(
        subject).sign(key, hashes.SHA256())
    signed = demo.sign_coe_cluster_certificate(
        cluster, csr.public_bytes(serialization.Encoding.PEM).decode())
    cert = x509.load_pem_x509_certificate(signed['pem'].encode())
    expect(cert.issuer == ca_cert.subject, 'issued by the cluster CA')
    expect(cert.public_key().public_numbers()
           == key.public_key().public_numbers(), 'for the CSR key')
    return cert.subject.rfc4514_string()


@check('cloud layer: list_magnum_services (admin)')
def services():
    found = admin.list_magnum_services()
    expect(len(found) > 0, 'at least one service')
    return [(s['binary'], s['state']) for s in found]


@check('cloud layer: delete_coe_cluster, gone')
def delete_cluster():
    need('cluster')
    expect(demo.delete_coe_cluster('sdk-cl') is True, 'delete answers True')
    end = time.time() + 120
    while demo.get_coe_cluster('sdk-cl') is not None:
        expect(time.time() < end, 'sdk-cl is gone')
        time.sleep(0.5)
    return True


@check('cloud layer: delete_coe_cluster_template')
def delete_template():
    need('template')
    expect(demo.delete_coe_cluster_template('sdk-tpl-2') is True,
           'delete answers True')
    expect(demo.get_coe_cluster_template('sdk-tpl-2') is None, 'gone')
    return True


run()
