import { GlobalOutlined } from '@ant-design/icons';
import { Button, Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, currentLanguage, i18n, setLanguage, type Language } from '@/lib/i18n';
import { toastSuccess } from '@/lib/notify';

export const LANGUAGE_LABELS: Record<Language, string> = { 'zh-CN': '简体中文', 'en-US': 'English', 'ja-JP': '日本語' };

export async function switchLanguage(lng: Language): Promise<void> {
  await setLanguage(lng);
  toastSuccess(i18n.t('settings.languageSwitched'));
}

export function LanguageSwitch({ className }: { className?: string }) {
  const { t } = useTranslation();
  const lng = currentLanguage();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [lng],
        items: LANGUAGES.map((l) => ({ key: l, label: LANGUAGE_LABELS[l] })),
        onClick: ({ key }) => void switchLanguage(key as Language),
      }}
    >
      <Button type="text" className={className} icon={<GlobalOutlined />} aria-label={t('settings.language')} data-testid="language-switch">
        {LANGUAGE_LABELS[lng]}
      </Button>
    </Dropdown>
  );
}
