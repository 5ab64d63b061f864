import {
  AccountBookOutlined, ApartmentOutlined, AlertOutlined, BarChartOutlined, CarOutlined, CustomerServiceOutlined,
  DashboardOutlined, DatabaseOutlined, FileTextOutlined, HistoryOutlined, HomeOutlined, MoneyCollectOutlined, ProfileOutlined,
  QuestionCircleOutlined, RadarChartOutlined, RollbackOutlined, SettingOutlined, TeamOutlined, ThunderboltOutlined,
  ToolOutlined, UserOutlined,
} from '@ant-design/icons';
import type { ReactNode } from 'react';
import type { IconName } from '@/config/routes';

const icons: Record<IconName, ReactNode> = {
  home: <HomeOutlined />,
  car: <CarOutlined />,
  finance: <AccountBookOutlined />,
  energy: <ThunderboltOutlined />,
  setting: <SettingOutlined />,
  assets: <DatabaseOutlined />,
  monitor: <RadarChartOutlined />,
  report: <BarChartOutlined />,
  tool: <ToolOutlined />,
  risk: <AlertOutlined />,
  order: <ProfileOutlined />,
  bill: <MoneyCollectOutlined />,
  invoice: <FileTextOutlined />,
  refund: <RollbackOutlined />,
  charge: <DashboardOutlined />,
  org: <ApartmentOutlined />,
  role: <TeamOutlined />,
  user: <UserOutlined />,
  help: <QuestionCircleOutlined />,
  history: <HistoryOutlined />,
};

export function MenuIcon({ name }: { name?: IconName }) {
  return name ? icons[name] : null;
}

export const ServiceIcon = CustomerServiceOutlined;
