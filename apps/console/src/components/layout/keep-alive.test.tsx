import { act, render, screen } from '@testing-library/react';
import { useEffect } from 'react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import { KeepAliveOutlet } from './keep-alive';

const LIST = '/carManagement/vehicleManagement/trafficViolations';
const DETAIL = '/carManagement/vehicleManagement/trafficViolationsDetail';

let mounts: string[];
function Page({ name }: { name: string }) {
  const location = useLocation();
  useEffect(() => {
    mounts.push(name);
  }, [name]);
  return <p data-testid={name}>{location.search}</p>;
}

function renderShell(start: string, openPaths: () => string[]) {
  const router = createMemoryRouter(
    [
      {
        path: '/',
        element: <KeepAliveOutlet cacheable={() => true} openPaths={openPaths()} />,
        children: [
          { path: LIST.slice(1), element: <Page name="list" /> },
          { path: DETAIL.slice(1), element: <Page name="detail" /> },
        ],
      },
    ],
    { initialEntries: [start] },
  );
  render(<RouterProvider router={router} />);
  return router;
}

beforeEach(() => {
  mounts = [];
});

describe('kept-alive pages (console spec §2 tabs)', () => {
  it('updates a menu page in place when its query changes: a list search mounts nothing new', async () => {
    const router = renderShell(`${LIST}?plate=A`, () => [`${LIST}?plate=A`]);
    expect(await screen.findByText('?plate=A')).toBeInTheDocument();
    await act(() => router.navigate(`${LIST}?plate=B&page=1`));
    expect(screen.getByTestId('list')).toHaveTextContent('?plate=B&page=1');
    expect(screen.getAllByTestId('list')).toHaveLength(1);
    expect(mounts).toEqual(['list']);
  });

  it('gives each address of a hidden page (a detail) its own mounted page', async () => {
    const router = renderShell(`${DETAIL}?id=1`, () => [`${DETAIL}?id=1`, `${DETAIL}?id=2`]);
    expect(await screen.findByText('?id=1')).toBeInTheDocument();
    await act(() => router.navigate(`${DETAIL}?id=2`));
    // The first stays mounted, hidden, for its tab.
    expect(screen.getAllByTestId('detail')).toHaveLength(2);
    expect(mounts).toEqual(['detail', 'detail']);
  });
});
