/** Code lists of vehicle assets (select options, tags), tied to the generated API enums. */
import { enumValues } from '@/lib/enum-values';
import type { components } from '@/lib/api/schema';
import { codeLabel as codeLabelOf, codeOptions as codeOptionsOf, codesOf } from '@/lib/codes';

type Schemas = components['schemas'];
export type VehicleStatus = Schemas['VehicleStatus'];
export type EnergyType = Schemas['EnergyType'];
export type PlateColor = Schemas['PlateColor'];
export type OwnershipType = Schemas['OwnershipType'];
export type UsageKind = Schemas['UsageKind'];
export type UsageStatus = Schemas['UsageStatus'];
export type BindingKind = Schemas['BindingKind'];
export type VehicleCategory = Schemas['VehicleCategory'];

export const VEHICLE_STATUSES = enumValues<VehicleStatus>()('IN_SERVICE', 'IDLE', 'IN_REPAIR', 'SUSPENDED', 'RETIRED');
export const ENERGY_TYPES = enumValues<EnergyType>()('BATTERY_ELECTRIC', 'PLUG_IN_HYBRID', 'RANGE_EXTENDED', 'FUEL', 'HYDROGEN_FUEL_CELL');
export const PLATE_COLORS = enumValues<PlateColor>()('BLUE', 'YELLOW', 'GREEN', 'YELLOW_GREEN', 'WHITE', 'BLACK');
export const OWNERSHIP_TYPES = enumValues<OwnershipType>()('OWNED', 'RENTED', 'RENT_TO_OWN', 'PRIVATE');
export const USAGE_KINDS = enumValues<UsageKind>()('RENT', 'PURCHASE', 'REPLACEMENT', 'RENT_TO_OWN');
export const USAGE_STATUSES = enumValues<UsageStatus>()('PENDING', 'ACTIVE', 'ENDED');
export const VEHICLE_CATEGORIES = enumValues<VehicleCategory>()('MINI_TRUCK', 'LIGHT_TRUCK', 'MEDIUM_TRUCK', 'HEAVY_TRUCK', 'VAN', 'REFRIGERATED_TRUCK', 'PASSENGER_CAR', 'OTHER');
export const BINDING_KINDS = enumValues<BindingKind>()('DRIVER', 'ORGANIZATION', 'TERMINAL');

export const vehicleStatusColor = (status: VehicleStatus | null | undefined): string =>
  status ? { IN_SERVICE: 'success', IDLE: 'default', IN_REPAIR: 'warning', SUSPENDED: 'error', RETIRED: 'default' }[status] : 'default';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Select options of a code list, labelled from `vehicles.<group>.<code>`. */
export const codeOptions = (t: Translate, group: string, codes: readonly string[]) => codeOptionsOf(t, `vehicles.${group}`, codes);

/** The label of one code ('' for none or unknown: the table shows '--'). */
export const codeLabel = (t: Translate, group: string, code: string | null | undefined) => codeLabelOf(t, `vehicles.${group}`, code);

/** Watt-hours as kWh with one decimal ('' for none). */
export const kwh = (wh: number | null | undefined) => (wh ? (wh / 1000).toFixed(1) : '');

export { codesOf };
