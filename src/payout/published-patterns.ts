/**
 * The validation patterns the partner API publishes for its providers' parameters: the
 * sandbox serves them, and the batch checks recognise them to describe a field in words.
 */
export const PAN = '^[0-9]{16,19}$';
export const NAME = "^[A-Za-zА-Яа-яЁё' -]{1,64}$";
export const PHONE = '^[1-9][0-9]{10,14}$';
export const BANK_ID = '^[A-Za-z0-9_]{1,64}$';
export const TOKEN = '^[A-Za-z0-9_-]{1,128}$';
export const FREE_TEXT = '^.{1,140}$';
