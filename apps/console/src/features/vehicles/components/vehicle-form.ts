/** The vehicle form's values and the body they become (issue 9, console spec §5 form rules). */
import type { Dayjs } from 'dayjs';
import dayjs from 'dayjs';
import type { Vehicle, VehicleForm } from '../api/vehicles';
import type { EnergyType, OwnershipType, PlateColor, VehicleCategory, VehicleStatus } from './vehicle-labels';
import { isNewEnergyPlate, normalisePlate } from './vehicle-rules';

export interface VehicleFormValues {
  orgId?: string;
  plateNumber?: string;
  plateColor?: PlateColor;
  vin?: string;
  engineNumber?: string;
  brand?: string;
  model?: string;
  category?: VehicleCategory;
  energyType?: EnergyType;
  batteryCapacityKwh?: number | null;
  ratedRangeKm?: number | null;
  ownershipType?: OwnershipType;
  status?: VehicleStatus;
  registerTime?: Dayjs | null;
  terminalId?: string;
  terminalSim?: string;
  licenceOwner?: string;
  licenceIssueTime?: Dayjs | null;
  inspectionExpireTime?: Dayjs | null;
  remark?: string;
}

/** Green plates for new-energy cars: the colour a new 8-character plate suggests. */
export const NEW_ENERGY_PLATE_COLOR: PlateColor = 'GREEN';

/** The colour to preset when the plate changes: green for a new-energy plate if none is chosen. */
export function suggestedPlateColor(plate: string | undefined, current: PlateColor | undefined): PlateColor | undefined {
  if (current) return current;
  return plate && isNewEnergyPlate(plate) ? NEW_ENERGY_PLATE_COLOR : current;
}

/** Dates go as yyyy-MM-dd ('' for none), as the gateway reads them. */
const date = (d: Dayjs | null | undefined) => (d ? d.format('YYYY-MM-DD') : '');

/**
 * The body to send. Editing replaces every editable field, so fields the form does
 * not show keep the stored vehicle's values.
 */
export function vehicleBody(v: VehicleFormValues, stored?: Vehicle): VehicleForm {
  return {
    orgId: v.orgId ?? '',
    plateNumber: normalisePlate(v.plateNumber ?? ''),
    plateColor: v.plateColor ?? null,
    vin: (v.vin ?? '').trim().toUpperCase(),
    engineNumber: v.engineNumber ?? '',
    brand: v.brand ?? '',
    model: v.model ?? '',
    category: v.category ?? null,
    energyType: v.energyType ?? null,
    batteryCapacityWh: v.batteryCapacityKwh ? Math.round(v.batteryCapacityKwh * 1000) : 0,
    ratedRangeKm: v.ratedRangeKm ?? 0,
    ownershipType: v.ownershipType ?? null,
    status: v.status ?? null,
    registerTime: date(v.registerTime),
    terminalId: v.terminalId ?? '',
    terminalSim: v.terminalSim ?? '',
    licenceOwner: v.licenceOwner ?? '',
    licenceIssueTime: date(v.licenceIssueTime),
    inspectionExpireTime: date(v.inspectionExpireTime),
    remark: v.remark ?? '',
    bodyColor: stored?.bodyColor ?? '',
    seatCount: stored?.seatCount ?? 0,
    ratedLoadKg: stored?.ratedLoadKg ?? 0,
    curbWeightKg: stored?.curbWeightKg ?? 0,
    tags: stored?.tags ?? [],
    licenceImages: stored?.licenceImages ?? [],
  };
}

const day = (s: string | null | undefined) => (s ? dayjs(s) : null);

/** A stored vehicle as form values (editing). */
export function vehicleFormValues(v: Vehicle): VehicleFormValues {
  return {
    orgId: v.orgId,
    plateNumber: v.plateNumber,
    plateColor: v.plateColor ?? undefined,
    vin: v.vin,
    engineNumber: v.engineNumber,
    brand: v.brand,
    model: v.model,
    category: v.category ?? undefined,
    energyType: v.energyType ?? undefined,
    batteryCapacityKwh: v.batteryCapacityWh ? v.batteryCapacityWh / 1000 : null,
    ratedRangeKm: v.ratedRangeKm || null,
    ownershipType: v.ownershipType ?? undefined,
    status: v.status ?? undefined,
    registerTime: day(v.registerTime),
    terminalId: v.terminalId,
    terminalSim: v.terminalSim,
    licenceOwner: v.licenceOwner,
    licenceIssueTime: day(v.licenceIssueTime),
    inspectionExpireTime: day(v.inspectionExpireTime),
    remark: v.remark,
  };
}
