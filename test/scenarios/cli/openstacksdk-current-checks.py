"""openstacksdk 4.x (Debian trixie's python3-openstacksdk) against the service and the simulator.

Run by test/scenarios/cli/openstacksdk-current.test.ts with /usr/bin/python3 and the newer SDK on
PYTHONPATH: reads the cloud's settings as JSON on stdin and prints one JSON line per check on stdout:
{"check", "ok", "error", "detail", "started", "ended"} (times in ms since the epoch, to match the calls the
test's tap recorded). The resource layer (conn.container_infrastructure_management) first, then the cloud
layer's create_coe_cluster and scale. A check that needs what an earlier one made fails saying so.
"""
import time

import openstack
from openstack import exceptions
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from sdk_lane import check, cfg, connect, expect, need, run, state  # noqa: F401

demo = connect('demo')
admin = connect('admin')
coe = demo.container_infrastructure_management


def settle(cluster_id, busy, timeout=150):
    """The cluster once its status is no longer `busy`."""
    end = time.time() + timeout
    while True:
        c = coe.get_cluster(cluster_id)
        if c.status != busy:
            return c
        expect(time.time() < end, '%s still %s' % (c.name, busy))
        time.sleep(0.5)


@check('resource layer: cluster_templates, two pages of one')
def templates_paged():
    names = [t.name for t in coe.cluster_templates(limit=1)]
    expect(set(cfg['templates']) <= set(names),
           'every template through the next links: %s' % names)
    return {'sdk': openstack.version.__version__, 'names': names}


@check('resource layer: create_cluster_template')
def create_template():
    t = coe.create_cluster_template(
        name='sdk4-tpl', coe='kubernetes', image_id='ubuntu-24.04',
        external_network_id='public', flavor_id='m1.small',
        master_flavor_id='m1.medium', network_driver='calico',
        is_master_lb_enabled=True, is_floating_ip_enabled=True,
        labels={'kube_tag': 'v1.35.1'})
    expect(t.id and t.name == 'sdk4-tpl', str(t))
    expect(t.labels == {'kube_tag': 'v1.35.1'}, 'labels: %s' % t.labels)
    expect(t.is_master_lb_enabled is True, 'master_lb_enabled read back')
    state['template'] = t.id
    return t.id


@check('resource layer: find_cluster_template by name')
def find_template():
    # Found by name, the resource's id is the name it was asked by (a GET
    # of /clustertemplates/<name>, which Magnum answers); uuid is the id.
    t = coe.find_cluster_template('sdk4-tpl')
    expect(t is not None and t.uuid == need('template'), str(t))
    missing = coe.find_cluster_template('no-such-template')
    expect(missing is None, 'an unknown name finds nothing')
    return t.uuid


@check('resource layer: update_cluster_template: by id or fetched 400, listed ok')
def update_template():
    # The SDK diffs the template against what it knows. Given a bare id it
    # sends a 'move' of /uuid to /id and an 'add' of /name; given the
    # template from get_cluster_template (asked by id) it adds /id; Magnum's
    # patch rules refuse both (no 'move'; /id is internal), and so do we.
    # Given the template as the list showed it, it sends one 'replace'.
    tid = need('template')
    for given in (tid, coe.get_cluster_template(tid)):
        try:
            coe.update_cluster_template(given, name='sdk4-tpl-2')
            raise AssertionError('the SDK patch was accepted: %s' % given)
        except exceptions.BadRequestException as e:
            expect(coe.get_cluster_template(tid).name == 'sdk4-tpl',
                   'nothing changed: %s' % e.response.text)
    listed = next(t for t in coe.cluster_templates() if t.uuid == tid)
    t = coe.update_cluster_template(listed, name='sdk4-tpl-2')
    expect(t.name == 'sdk4-tpl-2', str(t))
    expect(coe.get_cluster_template(tid).name == 'sdk4-tpl-2',
           'read back renamed')
    return t.name


@check('resource layer: create_cluster, 1+1, to CREATE_COMPLETE')
def create_cluster():
    c = coe.create_cluster(name='sdk4-cl', cluster_template_id=need(
        'template'), master_count=1, node_count=1)
    expect(c.id, 'an id: %s' % c)
    state['cluster'] = c.id
    done = settle(c.id, 'CREATE_IN_PROGRESS')
    expect(done.status == 'CREATE_COMPLETE', 'status %s: %s' % (
        done.status, done.status_reason))
    return {'id': c.id, 'status': done.status}


@check('resource layer: find_cluster by name, clusters lists it')
def find_cluster():
    c = coe.find_cluster('sdk4-cl')
    expect(c is not None and c.uuid == need('cluster'), str(c))
    listed = [x.name for x in coe.clusters()]
    expect('sdk4-cl' in listed, 'listed: %s' % listed)
    return listed


@check('resource layer: get_cluster_certificate and create_cluster_certificate')
def certificates():
    cluster = need('cluster')
    ca = coe.get_cluster_certificate(cluster)
    ca_cert = x509.load_pem_x509_certificate(ca.pem.encode())
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, 'system:masters'),
        x509.NameAttribute(NameOID.COMMON_NAME, 'admin')])
    csr = x509.CertificateSigningRequestBuilder().subject_name(
        subject).sign(key, hashes.SHA256())
    signed = coe.create_cluster_certificate(
        cluster_uuid=cluster,
        csr=csr.public_bytes(serialization.Encoding.PEM).decode())
    cert = x509.load_pem_x509_certificate(signed.pem.encode())
    expect(cert.issuer == ca_cert.subject, 'issued by the cluster CA')
    expect(cert.public_key().public_numbers()
           == key.public_key().public_numbers(), 'for the CSR key')
    return cert.subject.rfc4514_string()


@check('resource layer: services (admin)')
def services():
    found = list(admin.container_infrastructure_management.services())
    expect(len(found) > 0, 'at least one service')
    return [(s.binary, s.state) for s in found]


@check('resource layer: resize and upgrade send no microversion: 406')
def actions_without_microversion():
    # Both need a microversion (1.7, 1.8) that the SDK does not send:
    # Magnum answers 406 and changes nothing, and so do we.
    c = coe.get_cluster(need('cluster'))
    seen = {}
    for action, call in (
            ('resize', lambda: c.resize(coe, node_count=2)),
            ('upgrade', lambda: c.upgrade(coe, cluster_template=need(
                'template')))):
        try:
            call()
            raise AssertionError('%s without a microversion was accepted'
                                 % action)
        except exceptions.HttpException as e:
            expect(e.status_code == 406, '%s: status %s: %s' % (
                action, e.status_code, e))
            seen[action] = e.status_code
    after = coe.get_cluster(c.id)
    expect(after.node_count == 1 and after.status == 'CREATE_COMPLETE',
           'nothing changed: %s %s' % (after.node_count, after.status))
    return seen


@check('cloud layer: update_coe_cluster scales to 2 workers')
def scale_cluster():
    need('cluster')
    demo.update_coe_cluster('sdk4-cl', node_count=2)
    done = settle(need('cluster'), 'UPDATE_IN_PROGRESS')
    expect(done.status == 'UPDATE_COMPLETE', 'status %s: %s' % (
        done.status, done.status_reason))
    expect(done.node_count == 2, 'node_count %s' % done.node_count)
    return done.node_count


@check('resource layer: delete_cluster and wait_for_delete')
def delete_cluster():
    c = coe.get_cluster(need('cluster'))
    coe.delete_cluster(c)
    coe.wait_for_delete(c, interval=1, wait=120)
    expect(coe.find_cluster('sdk4-cl') is None, 'gone')
    return True


@check('cloud layer: create_coe_cluster, 1+1, to CREATE_COMPLETE')
def cloud_create_cluster():
    c = demo.create_coe_cluster('sdk4-cloud', need('template'),
                                master_count=1, node_count=1)
    expect(c['id'], 'an id: %s' % c)
    state['cloud_cluster'] = c['id']
    done = settle(c['id'], 'CREATE_IN_PROGRESS')
    expect(done.status == 'CREATE_COMPLETE', 'status %s: %s' % (
        done.status, done.status_reason))
    return done.status


@check('cloud layer: delete_coe_cluster, then delete_cluster_template')
def cloud_delete():
    need('cloud_cluster')
    expect(demo.delete_coe_cluster('sdk4-cloud') is True, 'delete: True')
    end = time.time() + 120
    while demo.get_coe_cluster('sdk4-cloud') is not None:
        expect(time.time() < end, 'sdk4-cloud is gone')
        time.sleep(0.5)
    coe.delete_cluster_template(need('template'))
    expect(coe.find_cluster_template('sdk4-tpl-2') is None, 'template gone')
    return True


run()
