"""An ML2 mechanism driver for a test cloud with no agents: it binds every port it is asked to bind.

The first segment offered is taken, the VIF type is `ovs` (what Nova's libvirt driver would plug) and the
port goes ACTIVE at once, since no L2 agent will ever report it up. Nothing is wired anywhere: the test
cloud's compute driver is Nova's fake driver, so no packet ever flows.
"""
from neutron_lib.api.definitions import portbindings
from neutron_lib import constants
from neutron_lib.plugins.ml2 import api


class BindAllMechanismDriver(api.MechanismDriver):
    """Binds any port on any host to the first segment offered."""

    def initialize(self):
        pass

    @property
    def connectivity(self):
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context):
        for segment in context.segments_to_bind:
            context.set_binding(
                segment[api.ID],
                portbindings.VIF_TYPE_OVS,
                {portbindings.CAP_PORT_FILTER: True, portbindings.OVS_HYBRID_PLUG: False},
                status=constants.PORT_STATUS_ACTIVE,
            )
            return
