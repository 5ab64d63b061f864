import { Button, Input, Modal } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BATCH_MAX } from '@/config/constants';

/** Lines of the textarea: split on line breaks, trimmed, empty lines dropped. */
export function parseBatch(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
}

export interface BatchDialogProps {
  open: boolean;
  /** Field label, appended to the title 批量查询. */
  label: string;
  value?: string[];
  max?: number;
  /** Unit in the limit message (default 台). */
  unit?: string;
  onCancel: () => void;
  onSubmit: (values: string[]) => void;
}

/** Batch query dialog (console spec §2/§5): 600 px, not closed by the backdrop, max 250 lines. */
export function BatchDialog({ open, label, value = [], max = BATCH_MAX, unit, onCancel, onSubmit }: BatchDialogProps) {
  const { t } = useTranslation();
  const [text, setText] = useState(value.join('\n'));
  const [error, setError] = useState('');
  useEffect(() => {
    if (open) {
      setText(value.join('\n'));
      setError('');
    }
    // Only when opening: the value is the starting text.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  const submit = () => {
    const lines = parseBatch(text);
    if (lines.length > max) {
      setError(t('batch.tooMany', { max, unit: unit ?? t('batch.unit') }));
      return;
    }
    onSubmit(lines);
  };
  return (
    <Modal
      title={`${t('batch.title')}${label}`}
      open={open}
      width={600}
      mask={{ closable: false }}
      onCancel={onCancel}
      footer={[
        // 取消 and 提交 exactly: antd would put a space between two Chinese characters.
        <Button key="cancel" onClick={onCancel} autoInsertSpace={false}>
          {t('batch.cancel')}
        </Button>,
        <Button key="submit" type="primary" onClick={submit} autoInsertSpace={false}>
          {t('batch.submit')}
        </Button>,
      ]}
    >
      <Input.TextArea
        value={text}
        autoSize={{ minRows: 6, maxRows: 10 }}
        placeholder={t('batch.hint')}
        onChange={(e) => {
          setText(e.target.value);
          setError('');
        }}
        status={error ? 'error' : undefined}
        aria-label={`${t('batch.title')}${label}`}
      />
      <div className={error ? 'fd-batch__error' : 'fd-batch__hint'} role={error ? 'alert' : undefined}>
        {error || t('batch.hint')}
      </div>
    </Modal>
  );
}
