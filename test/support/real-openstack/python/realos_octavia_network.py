"""Octavia's no-op network driver, except that the VIP port really goes when its load balancer goes.

The test cloud runs Octavia's API with the allowed-address-pairs driver, so a load balancer's VIP is a real
Neutron port (a floating IP can be put on it), and its worker with the no-op drivers, since no amphora ever
boots. The stock no-op driver leaves that VIP port behind on delete, and the tenant's subnet then cannot be
deleted (SubnetInUse). This driver deletes it, as the allowed-address-pairs driver would: only a port that
Octavia made (device_owner "Octavia"); a port the user brought stays.
"""
from neutronclient.common import exceptions as neutron_exceptions
from oslo_config import cfg
from oslo_log import log as logging

from octavia.common import clients
from octavia.network.drivers.noop_driver import driver as noop

LOG = logging.getLogger(__name__)
CONF = cfg.CONF
OCTAVIA_DEVICE_OWNER = 'Octavia'


class NoopNetworkDriverDeletingVip(noop.NoopNetworkDriver):

    def _neutron(self):
        return clients.NeutronAuth.get_neutron_client(
            endpoint=CONF.neutron.endpoint,
            region=CONF.neutron.region_name,
            endpoint_type=CONF.neutron.endpoint_type,
            service_name=CONF.neutron.service_name,
            insecure=CONF.neutron.insecure,
            ca_cert=CONF.neutron.ca_certificates_file,
        )

    def deallocate_vip(self, vip):
        super().deallocate_vip(vip)
        if not vip or not vip.port_id:
            return
        neutron = self._neutron()
        try:
            port = neutron.show_port(vip.port_id)['port']
        except neutron_exceptions.NotFound:
            LOG.info('VIP port %s is already gone', vip.port_id)
            return
        if port.get('device_owner') != OCTAVIA_DEVICE_OWNER:
            LOG.info('VIP port %s was not made by Octavia: kept', vip.port_id)
            return
        try:
            neutron.delete_port(vip.port_id)
            LOG.info('Deleted VIP port %s', vip.port_id)
        except neutron_exceptions.NotFound:
            pass
