import { createContext, useContext } from 'react';

/** A province, city or region entry. */
export interface Area {
  code: string;
  id: string;
  name: string;
}

/**
 * Where the pickers get their lists. The organisation service publishes areas; the
 * app provides a source bound to it, tests provide their own.
 */
export interface AreaSource {
  provinces(): Promise<Area[]>;
  cities(provinceCode: string): Promise<Area[]>;
  regions(): Promise<Area[]>;
  regionCities(regionCode: string): Promise<Area[]>;
}

const none = () => Promise.resolve<Area[]>([]);
export const emptyAreaSource: AreaSource = { provinces: none, cities: none, regions: none, regionCities: none };

export const AreaSourceContext = createContext<AreaSource>(emptyAreaSource);
export const useAreaSource = () => useContext(AreaSourceContext);
