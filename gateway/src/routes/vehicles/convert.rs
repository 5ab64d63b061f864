//! Edge enums more than one vehicles route shows.

use fleetdesk_proto::vehicle::v1 as pb;

use crate::edge::enums::edge_enum;

edge_enum!(
    /// Number-plate colour; green plates are new-energy vehicles.
    PlateColor => pb::PlateColor { Blue, Yellow, Green, YellowGreen, White, Black }
);
edge_enum!(
    /// What drives the vehicle.
    EnergyType => pb::EnergyType {
        BatteryElectric, PlugInHybrid, RangeExtended, Fuel, HydrogenFuelCell
    }
);
