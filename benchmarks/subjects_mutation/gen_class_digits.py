"""Digits classifier trained from a generator class imported from the program's folder (mutation subject)."""

from digit_batches import DigitBatches
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tensorflow import keras

digits = load_digits()
images = digits.images.reshape(-1, 64).astype("float32") / 16.0
train_images, test_images, train_labels, test_labels = train_test_split(
    images, digits.target, test_size=0.25, random_state=0
)
train_labels = keras.utils.to_categorical(train_labels, 10)
test_labels = keras.utils.to_categorical(test_labels, 10)

model = keras.Sequential()
model.add(keras.Input(shape=(64,)))
model.add(keras.layers.Dense(32, activation="relu"))
model.add(keras.layers.Dense(10, activation="softmax"))
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])

batches = DigitBatches(train_images, train_labels, batch_size=32)
model.fit(batches(), steps_per_epoch=len(train_images) // 32, epochs=5, verbose=0)
print(model.evaluate(test_images, test_labels, verbose=0)[1])
