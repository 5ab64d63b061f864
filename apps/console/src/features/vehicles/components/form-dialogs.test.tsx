/** Console spec §9: every form's labels are 105 px wide. */
import { screen } from '@testing-library/react';
import type { ReactElement } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import PrivateCarsPage from '../routes/private-cars';
import { DriverFormDialog } from './driver-form-dialog';
import { VehicleFormDialog } from './vehicle-form-dialog';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
beforeEach(() => vi.stubGlobal('fetch', vi.fn((url: string) => (url.startsWith('/api/v1/orgs') ? ok([]) : ok({ list: [], total: 0 })))));
afterEach(() => vi.unstubAllGlobals());

/** The widths of the label columns of a form (antd's `labelCol` flex basis). */
function labelWidths(form: HTMLElement): string[] {
  return [...form.querySelectorAll<HTMLElement>('.ant-form-item-label')].map((label) => label.style.flex);
}

const dialogs: [string, ReactElement, string][] = [
  ['新增车辆', <VehicleFormDialog open onClose={() => undefined} />, 'vehicle-form'],
  ['新增司机', <DriverFormDialog open onClose={() => undefined} />, 'driver-form'],
  ['新增私车', <PrivateCarsPage startAdding />, 'private-car-form'],
];

describe('vehicle form dialogs: labels 105 px', () => {
  it.each(dialogs)('%s', async (_, ui, testId) => {
    renderWithProviders(ui, { route: '/carManagement/assetsData/x' });
    const widths = labelWidths(await screen.findByTestId(testId));
    expect(widths.length).toBeGreaterThan(3);
    expect(new Set(widths)).toEqual(new Set(['0 0 105px']));
  });
});
