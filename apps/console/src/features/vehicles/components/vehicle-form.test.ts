import dayjs from 'dayjs';
import type { Vehicle } from '../api/vehicles';
import { suggestedPlateColor, vehicleBody, vehicleFormValues } from './vehicle-form';

describe('vehicle form', () => {
  it('presets a green plate for an 8-character new-energy plate unless a colour is chosen', () => {
    expect(suggestedPlateColor('粤BD12345', undefined)).toBe('GREEN');
    expect(suggestedPlateColor('粤B12345', undefined)).toBeUndefined();
    expect(suggestedPlateColor('粤BD12345', 'YELLOW_GREEN')).toBe('YELLOW_GREEN');
  });

  it('sends normalised plate and VIN, kWh as Wh and dates as yyyy-MM-dd', () => {
    const body = vehicleBody({
      orgId: 'o1',
      plateNumber: '粤b·d12345',
      vin: ' lsvab4bj2ln123456 ',
      batteryCapacityKwh: 81.5,
      registerTime: dayjs('2025-03-04T15:00:00'),
      status: 'IDLE',
    });
    expect(body).toMatchObject({ orgId: 'o1', plateNumber: '粤BD12345', vin: 'LSVAB4BJ2LN123456', batteryCapacityWh: 81500, registerTime: '2025-03-04', licenceIssueTime: '', status: 'IDLE', energyType: null });
  });

  it('keeps the stored values of fields the form does not show when editing', () => {
    const stored = { tags: ['冷链'], seatCount: 2, bodyColor: '白', category: 'VAN', licenceImages: [], ratedLoadKg: 1500, curbWeightKg: 2000 } as unknown as Vehicle;
    expect(vehicleBody({ plateNumber: '粤B12345', category: 'VAN' }, stored)).toMatchObject({ tags: ['冷链'], seatCount: 2, bodyColor: '白', category: 'VAN', ratedLoadKg: 1500 });
  });

  it('reads a stored vehicle back into the form', () => {
    const values = vehicleFormValues({ plateNumber: '粤B12345', batteryCapacityWh: 50000, registerTime: '2024-01-02', status: 'IN_SERVICE' } as unknown as Vehicle);
    expect(values.batteryCapacityKwh).toBe(50);
    expect(values.registerTime?.format('YYYY-MM-DD')).toBe('2024-01-02');
    expect(values.status).toBe('IN_SERVICE');
  });
});
