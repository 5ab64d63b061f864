import '../messages';
import { CardList } from '../components/card-list';

/** 充电卡 (electricCard): every card in the caller's data scope. */
export default function ElectricCardPage() {
  return <CardList />;
}
