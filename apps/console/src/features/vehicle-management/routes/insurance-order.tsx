import { ArrowLeftOutlined } from '@ant-design/icons';
import { Button, Descriptions } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { LoadErrorResult } from '@/components/load-error';
import { ModuleCard } from '@/components/module-card';
import { PageLoading } from '@/components/page-loading';
import { codeLabel } from '@/lib/codes';
import { detailText, formatTimeIn } from '@/lib/format';
import '../messages';
import { usePolicyDetail } from '../api/insurance';
import { PolicyDocuments, PolicyStatusTag } from '../components/policy-dialogs';

const LIST_PATH = '/carManagement/vehicleManagement/carGuaranteeSlip';

/**
 * 保单下载 (insuranceOrder, hidden; as:insurance): one policy's documents
 * (`?id=`), each downloaded through a fresh short-lived signed link; without
 * the file permission (as:insurance:file) the buttons are disabled and read
 * 暂无文件访问权限.
 */
export default function InsuranceOrderPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const detail = usePolicyDetail(id || undefined);
  const i = (key: string) => t(`vehicleManagement:insurance.${key}`);
  const policy = detail.data?.policy;
  if (detail.error) return <LoadErrorResult error={detail.error} onRetry={() => void detail.refetch()} />;
  if (!policy) return <PageLoading />;
  const day = (value: string) => formatTimeIn(value, '{y}-{m}-{d}');
  return (
    <ModuleCard
      title={i('documentsTitle')}
      extra={
        <Button icon={<ArrowLeftOutlined />} onClick={() => navigate(LIST_PATH)}>
          {i('back')}
        </Button>
      }
    >
      <div data-testid="insurance-order">
        <Descriptions size="small" column={3} style={{ marginBottom: 16 }}>
          <Descriptions.Item label={i('plateNumber')}>{detailText(policy.plateNumber)}</Descriptions.Item>
          <Descriptions.Item label={i('kind')}>{detailText(codeLabel(t, 'vehicleManagement:insurance.kinds', policy.kind))}</Descriptions.Item>
          <Descriptions.Item label={i('status')}>
            <PolicyStatusTag status={policy.status} />
          </Descriptions.Item>
          <Descriptions.Item label={i('insurer')}>{detailText(policy.insurer)}</Descriptions.Item>
          <Descriptions.Item label={i('policyNo')}>{detailText(policy.policyNo)}</Descriptions.Item>
          <Descriptions.Item label={i('period')}>{`${day(policy.startTime)} 至 ${day(policy.endTime)}`}</Descriptions.Item>
        </Descriptions>
        <PolicyDocuments policy={policy} />
      </div>
    </ModuleCard>
  );
}
