import { render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { vi } from 'vitest';
import { behind, withProps } from './page-table';

describe('page table entries', () => {
  it('open a page module with fixed props', async () => {
    const Page = ({ kind }: { kind: string }) => <span>kind {kind}</span>;
    const { default: Bound } = await withProps(() => Promise.resolve({ default: Page }), { kind: 'RENT' })();
    render(<Bound />);
    expect(screen.getByText('kind RENT')).toBeInTheDocument();
  });

  it('show the gate at once and load the page behind it only once the gate lets it through', async () => {
    const load = vi.fn(() => Promise.resolve({ default: () => <span>the page</span> }));
    const Closed = () => <span>closed</span>;
    const { default: GatedShut } = await behind(Closed, load)();
    render(<GatedShut />);
    expect(screen.getByText('closed')).toBeInTheDocument();
    expect(load).not.toHaveBeenCalled();

    const Open = ({ children }: { children: ReactNode }) => <div>{children}</div>;
    const { default: GatedOpen } = await behind(Open, load)();
    render(<GatedOpen />);
    expect(await screen.findByText('the page')).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(1);
  });
});
