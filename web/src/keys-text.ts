import { useI18n } from './i18n.ts';

/**
 * The API keys page's words, English and Russian, loaded with the page's own chunk
 * (keys-entry.tsx) as the Events page's are; `ru` must have every key `en` has.
 */
const en = {
  'keys.title': 'API keys',
  'keys.intro':
    'Keys let programs and the command line use this gateway. A key issued to a person acts as that person: it is one identity with their sign-in, so it cannot approve what they uploaded or count twice toward a policy.',
  'keys.new': 'Create a key',
  'keys.name': 'Name',
  'keys.nameHint': 'What it is for, e.g. hr-export: a letter, then up to 39 letters, digits, dots, dashes or underscores.',
  'keys.role': 'Role',
  'keys.expires': 'Expires on (optional)',
  'keys.expiresHint': 'It stops working at the end of this day, your time ({zone}). Empty: it works until revoked.',
  'keys.owner': 'Issued to',
  'keys.ownerNone': 'Nobody: it acts as the key itself',
  'keys.ownerHint': 'It then acts as that person. People are listed once they have signed in.',
  'keys.create': 'Create key',
  'keys.creating': 'Creating…',
  'keys.secretTitle': 'The secret of {name}, shown this once',
  'keys.secretHint':
    'Copy it now and hand it over safely: you will not see it again. The gateway keeps only its hash; if it is lost, revoke the key and create another.',
  'keys.secretUse': 'Programs send it as “Authorization: Bearer …”.',
  'keys.copy': 'Copy',
  'keys.copied': 'Copied',
  'keys.copyFailed': 'This browser does not allow copying here: select the secret and copy it.',
  'keys.done': 'Done, hide it',
  'keys.list': 'Keys',
  'keys.refresh': 'Refresh',
  'keys.none': 'No keys yet.',
  'keys.col.name': 'Name',
  'keys.col.role': 'Role',
  'keys.col.owner': 'Issued to',
  'keys.col.hint': 'Ends with',
  'keys.col.created': 'Created',
  'keys.col.used': 'Last used',
  'keys.col.expires': 'Expires',
  'keys.col.state': 'State',
  'keys.ownNone': 'the key itself',
  'keys.createdBy': '{time} by {who}',
  'keys.never': 'never',
  'keys.active': 'Works',
  'keys.expired': 'Expired',
  'keys.revoked': 'Revoked',
  'keys.revokedWhen': '{time} by {who}',
  'keys.revoke': 'Revoke',
  'keys.revokeOf': 'Revoke {name}',
  'keys.confirmRevoke': 'Revoke {name}? Everything using it is refused from its next request.',
  'keys.back': 'Back',
  'keys.revokedNow': '{name} is revoked.',
  'keys.error.API_KEY_NAME_TAKEN': 'Another key that still works has this name: choose another, or revoke that one first.',
  'keys.error.API_KEY_NAME_INVALID': 'This is not a name a key may have.',
  'keys.error.API_KEY_EXPIRY_INVALID': 'The expiry must be in the future.',
  'keys.error.API_KEY_OWNER_UNKNOWN': 'The gateway does not know this person.',
  'keys.error.API_KEY_NOT_FOUND': 'There is no such key any more.',
  'keys.error.API_KEYS_NEED_AN_ADMIN_KEY': 'This gateway takes no keys.',
  'keys.gatewaySaid': 'The gateway said: {message}',
};

export type KeysKey = keyof typeof en;

const ru: Record<KeysKey, string> = {
  'keys.title': 'API-ключи',
  'keys.intro':
    'С ключами со шлюзом работают программы и командная строка. Ключ, выданный человеку, действует от его имени: это одна личность с его входом, поэтому им нельзя утвердить загруженное им самим или дважды засчитаться в правило утверждения.',
  'keys.new': 'Создать ключ',
  'keys.name': 'Название',
  'keys.nameHint': 'Для чего он, например hr-export: буква, затем до 39 букв, цифр, точек, дефисов или подчёркиваний.',
  'keys.role': 'Роль',
  'keys.expires': 'Действует до (необязательно)',
  'keys.expiresHint': 'Перестаёт работать в конце этого дня по вашему времени ({zone}). Пусто: работает, пока его не отзовут.',
  'keys.owner': 'Выдан',
  'keys.ownerNone': 'Никому: действует от имени самого ключа',
  'keys.ownerHint': 'Тогда он действует от имени этого человека. Люди появляются здесь, когда хоть раз вошли.',
  'keys.create': 'Создать ключ',
  'keys.creating': 'Создаём…',
  'keys.secretTitle': 'Секрет ключа {name}: показан один раз',
  'keys.secretHint':
    'Скопируйте его сейчас и передайте надёжно: больше вы его не увидите. Шлюз хранит только его хэш; если секрет потерян, отзовите ключ и создайте новый.',
  'keys.secretUse': 'Программы передают его как «Authorization: Bearer …».',
  'keys.copy': 'Копировать',
  'keys.copied': 'Скопировано',
  'keys.copyFailed': 'Браузер не даёт копировать здесь: выделите секрет и скопируйте его.',
  'keys.done': 'Готово, скрыть',
  'keys.list': 'Ключи',
  'keys.refresh': 'Обновить',
  'keys.none': 'Ключей пока нет.',
  'keys.col.name': 'Название',
  'keys.col.role': 'Роль',
  'keys.col.owner': 'Выдан',
  'keys.col.hint': 'Оканчивается на',
  'keys.col.created': 'Создан',
  'keys.col.used': 'Последнее использование',
  'keys.col.expires': 'Действует до',
  'keys.col.state': 'Состояние',
  'keys.ownNone': 'сам ключ',
  'keys.createdBy': '{time}, {who}',
  'keys.never': 'никогда',
  'keys.active': 'Работает',
  'keys.expired': 'Истёк',
  'keys.revoked': 'Отозван',
  'keys.revokedWhen': '{time}, {who}',
  'keys.revoke': 'Отозвать',
  'keys.revokeOf': 'Отозвать {name}',
  'keys.confirmRevoke': 'Отозвать {name}? Всё, что им пользуется, получит отказ со следующего же запроса.',
  'keys.back': 'Назад',
  'keys.revokedNow': 'Ключ {name} отозван.',
  'keys.error.API_KEY_NAME_TAKEN': 'Такое название уже у другого действующего ключа: выберите другое или сначала отзовите тот.',
  'keys.error.API_KEY_NAME_INVALID': 'Такого названия у ключа быть не может.',
  'keys.error.API_KEY_EXPIRY_INVALID': 'Срок действия должен быть в будущем.',
  'keys.error.API_KEY_OWNER_UNKNOWN': 'Шлюз не знает этого человека.',
  'keys.error.API_KEY_NOT_FOUND': 'Такого ключа больше нет.',
  'keys.error.API_KEYS_NEED_AN_ADMIN_KEY': 'Этот шлюз не принимает ключей.',
  'keys.gatewaySaid': 'Ответ шлюза: {message}',
};

const dictionaries = { en, ru };

export type KeysText = (key: KeysKey, values?: Record<string, string | number>) => string;

/** The page's words in the page's language. */
export function useKeysText(): KeysText {
  const i18n = useI18n();
  return (key, values) => i18n.fill(dictionaries[i18n.locale][key], values);
}

/** A refusal's code in the page's words, when the page knows it. */
export const knownRefusal = (code: string): code is KeysKey extends `keys.error.${infer C}` ? C : never => `keys.error.${code}` in en;
