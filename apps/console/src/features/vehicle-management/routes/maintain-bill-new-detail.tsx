/** 维修账单明细 (billNewDetail / maintainBillNewDetail, as:maintain): the bill detail, reached from the newer links. */
export { default } from './maintain-bill-detail';
