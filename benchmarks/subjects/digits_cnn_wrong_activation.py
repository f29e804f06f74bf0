"""Subject (buggy copy of digits_cnn.py, relu output): a small CNN on scikit-learn's 8x8 digits images.

Two 3x3 convolutions, max pooling and a softmax layer; epochs can be changed with the
MUTREAL_SUBJECT_EPOCHS environment variable so the same program serves quick CPU checks.
"""

import os

import keras
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

epochs = int(os.environ.get("MUTREAL_SUBJECT_EPOCHS", "15"))
digits = load_digits()
x = (digits.images.astype("float32") / 16.0)[..., None]
y = keras.utils.to_categorical(digits.target, 10)
x_train, x_test, y_train, y_test = train_test_split(
    x, y, test_size=0.25, random_state=7, stratify=digits.target
)

model = keras.Sequential(
    [
        keras.Input(shape=(8, 8, 1)),
        keras.layers.Conv2D(32, (3, 3), activation="relu", padding="same"),
        keras.layers.Conv2D(32, (3, 3), activation="relu", padding="same"),
        keras.layers.MaxPooling2D((2, 2)),
        keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(10, activation="relu"),
    ]
)
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=epochs, batch_size=32, verbose=0)
model.evaluate(x_test, y_test, verbose=0)
