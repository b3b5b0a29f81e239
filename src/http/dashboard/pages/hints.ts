/** What empty states put in their curl examples: this sandbox's URL and the merchant's API key. */
export interface Hints {
  publicUrl: string;
  apiKey: string;
}
