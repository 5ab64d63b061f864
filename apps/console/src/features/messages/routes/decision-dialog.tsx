import { Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AppDialog } from '@/components/app-dialog';
import { ApiError, Code } from '@/lib/api-client';
import { toastSuccess } from '@/lib/notify';
import { COMMENT_MAX, decisionError, useDecideApproval } from '../api/approvals';

/**
 * Approve or reject one approval with a comment (a rejection needs a reason).
 * 4009 (decided meanwhile) closes the dialog; the refreshed detail shows why.
 */
export function DecisionDialog({ approvalId, approve, open, onClose }: { approvalId: string; approve: boolean; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [comment, setComment] = useState('');
  const [problem, setProblem] = useState<string>();
  const decide = useDecideApproval(approvalId);

  const close = () => {
    setComment('');
    setProblem(undefined);
    onClose();
  };
  const confirm = async () => {
    const error = decisionError(approve, comment);
    setProblem(error);
    if (error) throw new Error(error);
    try {
      await decide.mutateAsync({ approve, comment: comment.trim() });
    } catch (err) {
      if (err instanceof ApiError && err.code === Code.Conflict) close();
      throw err;
    }
    toastSuccess(t(approve ? 'approval.approved' : 'approval.rejected'));
    close();
  };

  return (
    <AppDialog
      open={open}
      title={t(approve ? 'approval.approveTitle' : 'approval.rejectTitle')}
      onCancel={close}
      onConfirm={confirm}
      width={480}
      destroyOnHidden
      data-testid="decision-dialog"
    >
      <label className="fd-field-label" htmlFor="decision-comment">
        {!approve && <span className="fd-required">*</span>}
        {t(approve ? 'approval.comment' : 'approval.reason')}
      </label>
      <Input.TextArea
        id="decision-comment"
        value={comment}
        onChange={(e) => {
          setComment(e.target.value);
          if (problem) setProblem(decisionError(approve, e.target.value));
        }}
        autoSize={{ minRows: 3, maxRows: 6 }}
        maxLength={COMMENT_MAX}
        showCount
        placeholder={t(approve ? 'approval.commentPlaceholder' : 'approval.reasonPlaceholder')}
        status={problem ? 'error' : undefined}
        data-testid="decision-comment"
      />
      {problem && (
        <Typography.Text type="danger" role="alert">
          {t(problem)}
        </Typography.Text>
      )}
    </AppDialog>
  );
}
