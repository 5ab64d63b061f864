import { LogoutOutlined } from '@ant-design/icons';
import { Button, Card } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EnterpriseList } from '@/components/enterprise-list';
import { Logo } from '@/components/logo';
import { usePageTitle } from '@/components/use-page-title';
import { logout } from '@/lib/auth';
import { useEnterprises, useSelectEnterprise, type EnterpriseChoice } from '@/lib/enterprises';
import { useEnterConsole } from '../components/use-after-login';

/**
 * /selectNet (console spec §1/§4): someone who belongs to several enterprises chooses
 * one by name and gets an enterprise session; with a single enterprise the
 * choice makes itself.
 */
export default function SelectNetPage() {
  const { t } = useTranslation();
  usePageTitle('route.selectNet');
  const { data, isPending, isError, refetch } = useEnterprises();
  const enter = useEnterConsole();
  const [choosing, setChoosing] = useState<string>();
  const { mutate: select } = useSelectEnterprise(enter);
  const autoChosen = useRef(false);

  const choose = (e: EnterpriseChoice) => {
    setChoosing(e.enterpriseId);
    select(e.enterpriseId, { onError: () => setChoosing(undefined) });
  };

  useEffect(() => {
    if (data?.length !== 1 || autoChosen.current) return;
    autoChosen.current = true;
    setChoosing(data[0].enterpriseId);
    select(data[0].enterpriseId, { onError: () => setChoosing(undefined) });
  }, [data, select]);

  return (
    <div className="fd-center-page fd-select-net">
      <Card variant="borderless" className="fd-select-net__card">
        <div className="fd-select-net__head">
          <Logo size={32} />
          <div>
            <h2>{t('selectNet.title')}</h2>
            <p>{t('selectNet.desc')}</p>
          </div>
        </div>
        <EnterpriseList items={data} loading={isPending} failed={isError} onRetry={() => void refetch()} onChoose={choose} choosing={choosing} />
        <div className="fd-select-net__foot">
          <Button type="link" icon={<LogoutOutlined />} onClick={() => void logout()}>
            {t('selectNet.back')}
          </Button>
        </div>
      </Card>
    </div>
  );
}
