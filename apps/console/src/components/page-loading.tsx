import { Spin } from 'antd';

export function PageLoading({ fullscreen = false }: { fullscreen?: boolean }) {
  return (
    <div className={fullscreen ? 'fd-loading fd-loading--fullscreen' : 'fd-loading'} role="status" aria-busy="true">
      <Spin size="large" />
    </div>
  );
}
