-- A municipality's violations are stored under its province-level city code
-- (310000), as the console's areas name it; authorities often give its
-- 市辖区 or 县 code (310100, 500200). Rows stored before are renamed once.
update traffic_violation
   set city_code = left(city_code, 2) || '0000'
 where left(city_code, 2) in ('11', '12', '31', '50')
   and city_code ~ '^[0-9]{4}00$'
   and city_code !~ '0000$';
