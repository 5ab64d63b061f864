import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';

/** /redirect/{path}: re-enters a page (tab refresh). */
export default function RedirectView() {
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    navigate(location.pathname.replace(/^\/redirect/, '') + location.search, { replace: true });
  }, [location, navigate]);
  return null;
}
