/** 资产监控 (monitoring namespace), 简体中文. en-US and ja-JP have the same keys (checked by the compiler). */
const zhCN = {
  codes: {
    status: { driving: '行驶', parked: '停车', charging: '充电', offline: '离线', alarm: '报警' },
  },
  live: {
    total: '车辆总数 {{count}}',
    searchPlaceholder: '输入车牌号搜索',
    orgPlaceholder: '全部组织',
    notFound: '未找到该车辆',
    streamOpen: '实时更新中',
    streamReconnecting: '连接中断，正在重连…',
    streamClosed: '实时更新已停止',
    truncated: '车辆过多，地图仅显示前 20,000 辆，请按组织筛选',
    empty: '暂无有定位数据的车辆',
    speed: '速度',
    soc: '电量',
    temperature: '温度',
    probe: '探头{{n}}',
    driver: '司机',
    org: '所属组织',
    mileage: '总里程',
    fixTime: '定位时间',
    ago: { minute: '{{count}} 分钟前', hour: '{{count}} 小时前', day: '{{count}} 天前' },
    follow: '跟随',
    following: '跟随中',
    track: '轨迹回放',
  },
};

export default zhCN;
export type MonitoringMessages = typeof zhCN;
