/** Console spec §9: every form's labels are 105 px wide, left of their fields. */
import { waitFor } from '@testing-library/react';
import type { ReactElement } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/testing/render';
import type { ChargingCard } from '../api/cards';
import '../messages';
import { CardFormDialog } from './card-form-dialog';
import { CancelCardDialog, FreezeCardDialog } from './card-state-dialogs';

const ok = (data: unknown) => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data })));
beforeEach(() => vi.stubGlobal('fetch', vi.fn((url: string) => (url.startsWith('/api/v1/orgs') || url.startsWith('/api/v1/charging/accounts') ? ok([]) : ok({ list: [], total: 0 })))));
afterEach(() => vi.unstubAllGlobals());

const card = { id: 'c1', cardNo: 'C001', balanceFen: 1000, status: 'ACTIVE' } as ChargingCard;

const dialogs: [string, ReactElement, string][] = [
  ['新增充电卡', <CardFormDialog open onClose={() => undefined} />, 'cardForm'],
  ['冻结', <FreezeCardDialog card={card} onClose={() => undefined} />, 'freezeCardForm'],
  ['注销', <CancelCardDialog card={card} onClose={() => undefined} />, 'cancelCardForm'],
];

describe('charging form dialogs: labels 105 px', () => {
  it.each(dialogs)('%s', async (_, ui, name) => {
    renderWithProviders(ui);
    const form = await waitFor(() => {
      const found = document.querySelector<HTMLElement>(`form#${name}`);
      expect(found).not.toBeNull();
      return found as HTMLElement;
    });
    const widths = [...form.querySelectorAll<HTMLElement>('.ant-form-item-label')].map((label) => label.style.flex);
    expect(widths.length).toBeGreaterThan(0);
    expect(new Set(widths)).toEqual(new Set(['0 0 105px']));
  });
});
